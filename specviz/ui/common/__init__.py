"""What every page shares: the frame and sidebar, charts with their tables, accessibility, escaping, colours, the
shared-model queue, and the step and tree renderers."""
