'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { Router } = require('../src/router');
const { DuplicateRouteError, RouteError } = require('../src/errors');

function sample() {
  const router = new Router();
  router.get('/users/:id', () => 'user');
  router.get('/users/me', () => 'me');
  router.post('/users', () => 'create');
  router.get('/files/*path', () => 'file');
  return router;
}

test('router: the most specific route wins', () => {
  const router = sample();
  assert.equal(router.match('GET', '/users/me').pattern, '/users/me');
  assert.equal(router.match('GET', '/users/12').pattern, '/users/:id');
});

test('router: params and query reach the handler', () => {
  const router = new Router();
  router.get('/search/:scope', (req) => [req.params.scope, req.query.q]);
  assert.deepEqual(router.dispatch('GET', '/search/books?q=dune#top'), ['books', 'dune']);
});

test('router: HEAD falls back to GET', () => {
  assert.equal(sample().match('HEAD', '/users/3').pattern, '/users/:id');
});

test('router: 404 and 405', () => {
  const router = sample();
  assert.deepEqual(router.dispatch('GET', '/nothing'), { status: 404 });
  assert.deepEqual(router.dispatch('DELETE', '/users'), { status: 405 });
  assert.deepEqual(router.allowedMethods('/users/3'), ['GET', 'HEAD']);
});

test('router: bad registrations are refused', () => {
  const router = sample();
  assert.throws(() => router.get('/users/:id', () => 'again'), DuplicateRouteError);
  assert.throws(() => router.add('FETCH', '/x', () => 1), RouteError);
  assert.throws(() => router.add('GET', '/x', 'not a function'), /not a function/);
});
