'use strict';

/** Every error routelet throws on purpose. */
class RouteError extends Error {
  constructor(message) {
    super(message);
    this.name = this.constructor.name;
  }
}

/** A pattern that cannot be compiled (says which and where). */
class PatternError extends RouteError {
  constructor(pattern, position, reason) {
    super(`${reason} in pattern '${pattern}' at ${position}`);
    this.pattern = pattern;
    this.position = position;
  }
}

/** The same method and pattern registered twice. */
class DuplicateRouteError extends RouteError {
  constructor(method, pattern) {
    super(`${method} ${pattern} is already registered`);
    this.method = method;
    this.pattern = pattern;
  }
}

module.exports = { RouteError, PatternError, DuplicateRouteError };
