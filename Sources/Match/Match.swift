// Match: placeholder until its first file lands.
