// BotsTests: placeholder until its first test lands.
