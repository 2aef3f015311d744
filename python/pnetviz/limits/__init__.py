"""Expected results of a binned template fit: datacards, pyhf and HS3 workspaces, and the
expected discovery significance and CLs upper limit (asymptotic) on the signal strength."""
