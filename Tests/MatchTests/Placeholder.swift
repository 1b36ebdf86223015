// MatchTests: placeholder until its first test lands.
