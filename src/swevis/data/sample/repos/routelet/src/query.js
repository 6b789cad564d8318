'use strict';

/** One key or value of a query string (application/x-www-form-urlencoded). */
function decodeComponent(text) {
  return decodeURIComponent(text);
}

/**
 * Parse "a=1&b=two&a=3" into { a: ['1', '3'], b: 'two' }: a key given once maps to a string,
 * a repeated key to an array in order; a key without "=" maps to ''.
 */
function parseQuery(query) {
  const out = {};
  if (!query) {
    return out;
  }
  const text = query.startsWith('?') ? query.slice(1) : query;
  for (const pair of text.split('&')) {
    if (pair === '') {
      continue;
    }
    const eq = pair.indexOf('=');
    const key = decodeComponent(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decodeComponent(pair.slice(eq + 1));
    if (Object.prototype.hasOwnProperty.call(out, key)) {
      out[key] = [].concat(out[key], value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** The inverse of parseQuery: keys in insertion order, arrays as repeated keys. */
function formatQuery(values) {
  const parts = [];
  for (const [key, value] of Object.entries(values)) {
    for (const item of [].concat(value)) {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(item))}`);
    }
  }
  return parts.join('&');
}

module.exports = { parseQuery, formatQuery, decodeComponent };
