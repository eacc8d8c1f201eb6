"""The `wolfvillage` command: thin verbs over the packages of DESIGN.md."""
