"""Tool risk: which calls cannot be undone, the approval policy, and how a human approves them.

Import from the submodules (`common.safety.gate`, `common.safety.policy`...): this package
re-exports nothing, so importing one piece (settings needs only `policy`) loads no other.
"""
