'use strict';

const { compile } = require('./pattern');
const { parseQuery } = require('./query');
const { DuplicateRouteError, RouteError } = require('./errors');

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Splits "/path?query#hash" into its path and query string. */
function splitUrl(url) {
  const hash = url.indexOf('#');
  const bare = hash < 0 ? url : url.slice(0, hash);
  const q = bare.indexOf('?');
  return q < 0 ? { path: bare, query: '' } : { path: bare.slice(0, q), query: bare.slice(q + 1) };
}

/**
 * Routes (method, url) to a handler. The most specific pattern wins (static segments over
 * parameters over rest parameters); among equals, the first registered.
 */
class Router {
  constructor() {
    this.routes = [];
  }

  add(method, pattern, handler) {
    const verb = String(method).toUpperCase();
    if (!METHODS.includes(verb)) {
      throw new RouteError(`unknown method ${method}`);
    }
    if (typeof handler !== 'function') {
      throw new RouteError(`the handler of ${verb} ${pattern} is not a function`);
    }
    if (this.routes.some((r) => r.method === verb && r.matcher.pattern === pattern)) {
      throw new DuplicateRouteError(verb, pattern);
    }
    const matcher = compile(pattern);
    this.routes.push({ method: verb, matcher, handler, order: this.routes.length });
    this.routes.sort((a, b) => b.matcher.score - a.matcher.score || a.order - b.order);
    return this;
  }

  get(pattern, handler) {
    return this.add('GET', pattern, handler);
  }

  post(pattern, handler) {
    return this.add('POST', pattern, handler);
  }

  /** { handler, params, query, pattern } of the route for (method, url), or null. */
  match(method, url) {
    const verb = String(method).toUpperCase();
    const { path, query } = splitUrl(url);
    for (const route of this.routes) {
      if (route.method !== verb && !(verb === 'HEAD' && route.method === 'GET')) {
        continue;
      }
      const params = route.matcher.match(path);
      if (params) {
        return { handler: route.handler, params, query: parseQuery(query), pattern: route.matcher.pattern };
      }
    }
    return null;
  }

  /** The methods some route accepts for this url (for a 405 response's Allow header). */
  allowedMethods(url) {
    const { path } = splitUrl(url);
    const methods = new Set();
    for (const route of this.routes) {
      if (route.matcher.match(path)) {
        methods.add(route.method);
      }
    }
    if (methods.has('GET')) {
      methods.add('HEAD');
    }
    return METHODS.filter((m) => methods.has(m));
  }

  /** Calls the matched handler with { params, query, method, url }; returns its result. */
  dispatch(method, url) {
    const found = this.match(method, url);
    if (!found) {
      return { status: this.allowedMethods(url).length ? 405 : 404 };
    }
    return found.handler({ params: found.params, query: found.query, method, url });
  }
}

module.exports = { Router, splitUrl, METHODS };
