// OpenSSL's libcrypto (Debian libssl-dev), for passcode proofs: HMAC-SHA256,
// PBKDF2-HMAC-SHA256, RAND_bytes and CRYPTO_memcmp. Only the Session module
// imports this (Sources/Session/Crypto/Crypto.swift).
#ifndef PARLOR_CCRYPTO_SHIM_H
#define PARLOR_CCRYPTO_SHIM_H
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#endif
