'use strict';

const { PatternError } = require('./errors');

// a parameter segment: ":name", optionally followed by "?" (may be absent)
const PARAM = /^:([A-Za-z_][A-Za-z0-9_]*)(\?)?$/;
// a rest segment: "*name", matching the remainder of the path (may be empty)
const REST = /^\*([A-Za-z_][A-Za-z0-9_]*)$/;

function escapeRegex(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A path parameter as the handler sees it: percent-escapes decoded. */
function decodeParam(raw) {
  return decodeURIComponent(raw);
}

/**
 * Compile a pattern such as "/users/:id/files/*path" into a matcher.
 * Returns { pattern, keys, regex, score, match(path) -> params | null }.
 */
function compile(pattern) {
  if (typeof pattern !== 'string' || !pattern.startsWith('/')) {
    throw new PatternError(String(pattern), 0, 'a pattern must start with "/"');
  }
  const keys = [];
  let source = '^';
  let score = 0;
  const segments = pattern.split('/').slice(1);
  segments.forEach((segment, index) => {
    const position = pattern.indexOf(segment);
    let m = PARAM.exec(segment);
    if (m) {
      addKey(keys, m[1], pattern, position);
      source += m[2] ? '(?:/([^/]+))?' : '/([^/]+)';
      score += 2;
      return;
    }
    m = REST.exec(segment);
    if (m) {
      if (index !== segments.length - 1) {
        throw new PatternError(pattern, position, 'a rest parameter must be the last segment');
      }
      addKey(keys, m[1], pattern, position);
      source += '(?:/(.*))?';
      score += 1;
      return;
    }
    if (/[:*]/.test(segment)) {
      throw new PatternError(pattern, position, `invalid segment '${segment}'`);
    }
    source += segment === '' ? '/?' : '/' + escapeRegex(segment);
    score += 3;
  });
  const regex = new RegExp(source + '/?$');
  return { pattern, keys, regex, score, match: (path) => matchPath(regex, keys, path) };
}

function addKey(keys, name, pattern, position) {
  if (keys.includes(name)) {
    throw new PatternError(pattern, position, `duplicate parameter '${name}'`);
  }
  keys.push(name);
}

function matchPath(regex, keys, path) {
  const m = regex.exec(path);
  if (!m) {
    return null;
  }
  const params = {};
  keys.forEach((key, i) => {
    const raw = m[i + 1];
    if (raw !== undefined) {
      params[key] = decodeParam(raw);
    }
  });
  return params;
}

module.exports = { compile, decodeParam };
