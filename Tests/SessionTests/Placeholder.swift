// SessionTests: placeholder until its first test lands.
