// GamesTests: placeholder until its first test lands.
