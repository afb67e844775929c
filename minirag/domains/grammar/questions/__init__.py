"""Questions the grammar synthesises: learners' questions about its tables and rules (with their answers,
in either language) and off-topic ones about its examples' content, for the selector to abstain on."""
