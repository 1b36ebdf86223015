// Session: placeholder until its first file lands.
