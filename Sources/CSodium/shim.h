// libsodium (Debian libsodium-dev, 1.0.18): X25519, Ed25519, ChaCha20-Poly1305,
// SHA-256/512, HMAC-SHA-256/512, ristretto255 and the system's random bytes.
// Only the Secure module imports this (Sources/Secure/Sodium.swift and the
// files beside it); every primitive parlor uses comes from here.
#ifndef PARLOR_CSODIUM_SHIM_H
#define PARLOR_CSODIUM_SHIM_H
#include <sodium.h>
#endif
