'use strict';

const { Router, splitUrl, METHODS } = require('./router');
const { compile } = require('./pattern');
const { parseQuery, formatQuery } = require('./query');
const errors = require('./errors');

module.exports = { Router, splitUrl, METHODS, compile, parseQuery, formatQuery, ...errors };
