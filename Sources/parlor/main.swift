import ParlorCLI
