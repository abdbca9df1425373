"""Key-value items in namespaces, with their text embedded (the LangGraph store's layer)."""
