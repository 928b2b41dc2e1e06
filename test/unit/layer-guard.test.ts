import { exec, execFileSync, fork, spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('the unit layer starts no child process', () => {
  it('refuses spawn, exec, fork and their sync forms, naming the layer to move to', () => {
    const refused = /a unit test may not start a child process .*move the test to test\/e2e\//;
    expect(() => spawn('true')).toThrow(refused);
    expect(() => exec('true')).toThrow(refused);
    expect(() => fork('nothing.js')).toThrow(refused);
    expect(() => spawnSync('true')).toThrow(refused);
    expect(() => execFileSync('true')).toThrow(refused);
  });
});
