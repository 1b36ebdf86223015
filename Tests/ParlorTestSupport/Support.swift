// Test support placeholder.
