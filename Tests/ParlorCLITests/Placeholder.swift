// ParlorCLITests: placeholder until its first test lands.
