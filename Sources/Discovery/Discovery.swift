// Discovery: placeholder until its first file lands.
