"""The report: tables computed from artifacts, rendered to markdown; figures; the manifest."""
