"""The stored forms of values, below every layer that reads or writes them
(docs/architecture.md "Layers"): candidate lists (:mod:`.candidates`), text
an engine cannot hold (:mod:`.text`), source paths (:mod:`.paths`).  The
importers write these forms and the store keeps them; neither imports the
other for them."""
