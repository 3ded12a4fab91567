"""Training the offline target's drafts: the prompt set, the target's responses and features, the drafters."""
