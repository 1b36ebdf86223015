// DiscoveryTests: placeholder until its first test lands.
