// Bots: placeholder until its first file lands.
