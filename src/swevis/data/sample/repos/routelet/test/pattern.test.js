'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { compile } = require('../src/pattern');
const { PatternError } = require('../src/errors');

test('pattern: static path matches itself only', () => {
  const m = compile('/health');
  assert.deepEqual(m.match('/health'), {});
  assert.deepEqual(m.match('/health/'), {});
  assert.equal(m.match('/healthz'), null);
});

test('pattern: named parameters', () => {
  const m = compile('/users/:id/posts/:postId');
  assert.deepEqual(m.keys, ['id', 'postId']);
  assert.deepEqual(m.match('/users/7/posts/42'), { id: '7', postId: '42' });
  assert.equal(m.match('/users/7/posts'), null);
});

test('pattern: optional parameter', () => {
  const m = compile('/archive/:year?');
  assert.deepEqual(m.match('/archive'), {});
  assert.deepEqual(m.match('/archive/2024'), { year: '2024' });
});

test('pattern: rest parameter takes the remainder', () => {
  const m = compile('/files/*path');
  assert.deepEqual(m.match('/files/a/b/c.txt'), { path: 'a/b/c.txt' });
  assert.deepEqual(m.match('/files'), {});
});

test('pattern: parameters are percent-decoded', () => {
  assert.deepEqual(compile('/tags/:tag').match('/tags/caf%C3%A9'), { tag: 'café' });
});

test('pattern: static segments with regex characters are literal', () => {
  const m = compile('/v1.0/items');
  assert.deepEqual(m.match('/v1.0/items'), {});
  assert.equal(m.match('/v1x0/items'), null);
});

test('pattern: invalid patterns are refused', () => {
  assert.throws(() => compile('users'), PatternError);
  assert.throws(() => compile('/a/:id/:id'), /duplicate parameter 'id'/);
  assert.throws(() => compile('/a/*rest/b'), /must be the last segment/);
  assert.throws(() => compile('/a/b:c'), /invalid segment/);
});
