"""The speculative loop itself: its limits (K, lengths, tree sizes), sampling, the exact chain and tree rules, draft
trees, KV caches, the recorded Trace, the proposers (and their registry), draft-length policies and the closed-form
theory."""
