// TerminalUITests: placeholder until its first test lands.
