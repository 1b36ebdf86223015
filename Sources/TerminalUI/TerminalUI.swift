// TerminalUI: placeholder until its first file lands.
