'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { parseQuery, formatQuery } = require('../src/query');

test('query: pairs become keys', () => {
  assert.deepEqual(parseQuery('a=1&b=two'), { a: '1', b: 'two' });
  assert.deepEqual(parseQuery('?a=1'), { a: '1' });
  assert.deepEqual(parseQuery(''), {});
});

test('query: repeated keys collect into an array', () => {
  assert.deepEqual(parseQuery('tag=a&tag=b&tag=c'), { tag: ['a', 'b', 'c'] });
});

test('query: keys without a value and empty pairs', () => {
  assert.deepEqual(parseQuery('debug&&x='), { debug: '', x: '' });
});

test('query: percent-escapes are decoded', () => {
  assert.deepEqual(parseQuery('city=S%C3%A3o%20Paulo&q=a%26b'), { city: 'São Paulo', q: 'a&b' });
});

test('query: format is the inverse of parse', () => {
  const values = { q: 'a&b', tag: ['x', 'y'], n: 3 };
  assert.equal(formatQuery(values), 'q=a%26b&tag=x&tag=y&n=3');
  assert.deepEqual(parseQuery(formatQuery(values)), { q: 'a&b', tag: ['x', 'y'], n: '3' });
});
