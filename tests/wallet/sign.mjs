#!/usr/bin/env node
// Offline signing helper for the wallet-login integration tests.
//
// Usage:
//   node sign.mjs '{"chain":"eth"|"tron","privateKey":"0x<64 hex>","message":"<utf-8 text>"}'
//
// Prints exactly one line of JSON to stdout: {"address":"...","signature":"0x..."}
// Exits 0 on success; on bad input or failed self-verification prints a message
// to stderr and exits non-zero. Performs no network I/O (only static/offline
// library functions are used; no provider / TronWeb instance is created).
//
// eth : ethers Wallet.signMessage (EIP-191 personal_sign)
//       digest = keccak256("\x19Ethereum Signed Message:\n" + len(msg bytes) in decimal + msg)
//       signature = r(32) || s(32, low-s) || v(1, 0x1b/0x1c); address = EIP-55 checksummed 0x address
// tron: tronweb Trx.signMessageV2
//       digest = keccak256("\x19TRON Signed Message:\n" + len(msg bytes) in decimal + msg)
//       signature = r(32) || s(32, low-s) || v(1, 0x1b/0x1c)
//       address = base58check(0x41 || keccak256(X||Y)[12..32]), checksum = sha256(sha256(payload))[0..4]

import { Wallet, verifyMessage } from 'ethers';
import { TronWeb, Trx } from 'tronweb';

function fail(msg, code = 2) {
  process.stderr.write(`sign.mjs: ${msg}\n`);
  process.exit(code);
}

function parseInput(argv) {
  if (argv.length !== 3) {
    fail('expected exactly one argument: a JSON object {"chain","privateKey","message"}');
  }
  let input;
  try {
    input = JSON.parse(argv[2]);
  } catch (e) {
    fail(`argument is not valid JSON: ${e.message}`);
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    fail('argument must be a JSON object');
  }
  const { chain, privateKey, message } = input;
  if (chain !== 'eth' && chain !== 'tron') {
    fail(`"chain" must be "eth" or "tron", got ${JSON.stringify(chain)}`);
  }
  if (typeof privateKey !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(privateKey)) {
    fail('"privateKey" must be a string "0x" followed by exactly 64 hex digits');
  }
  // Must be a valid secp256k1 scalar: 0 < k < n.
  const k = BigInt(privateKey);
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  if (k === 0n || k >= n) {
    fail('"privateKey" is not a valid secp256k1 private key (must be in [1, n-1])');
  }
  if (typeof message !== 'string') {
    fail('"message" must be a string');
  }
  return { chain, privateKey: privateKey.toLowerCase(), message };
}

async function signEth(privateKey, message) {
  const wallet = new Wallet(privateKey);
  const signature = await wallet.signMessage(message);
  const recovered = verifyMessage(message, signature);
  if (recovered !== wallet.address) {
    fail(`eth self-check failed: recovered ${recovered}, expected ${wallet.address}`, 3);
  }
  return { address: wallet.address, signature };
}

function signTron(privateKey, message) {
  const pkNo0x = privateKey.slice(2);
  const address = TronWeb.address.fromPrivateKey(pkNo0x, true);
  if (typeof address !== 'string' || !TronWeb.isAddress(address) || !address.startsWith('T')) {
    fail('could not derive a TRON address from the private key', 3);
  }
  let signature = Trx.signMessageV2(message, pkNo0x);
  if (!signature.startsWith('0x')) signature = `0x${signature}`;
  if (!/^0x[0-9a-f]{130}$/i.test(signature)) {
    fail(`unexpected tron signature format: ${signature}`, 3);
  }
  // verifyMessageV2 returns the recovered base58 address.
  const recovered = Trx.verifyMessageV2(message, signature);
  if (recovered !== address) {
    fail(`tron self-check failed: verifyMessageV2 recovered ${recovered}, expected ${address}`, 3);
  }
  return { address, signature };
}

async function main() {
  const { chain, privateKey, message } = parseInput(process.argv);
  const out = chain === 'eth' ? await signEth(privateKey, message) : signTron(privateKey, message);
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((e) => fail(`unexpected error: ${e && e.stack ? e.stack : e}`, 1));
