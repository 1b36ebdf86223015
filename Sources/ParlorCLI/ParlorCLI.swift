// ParlorCLI: placeholder until its first file lands.
