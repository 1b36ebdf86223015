// The floor for `parlor bench startup`: the smallest Swift program that
// prints a line, built with parlor's toolchain and flags. Not installed.
print("parlor-trivial")
