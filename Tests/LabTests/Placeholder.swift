// LabTests: placeholder until its first test lands.
