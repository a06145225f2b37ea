"""Planning strategies, each a LangGraph graph."""
