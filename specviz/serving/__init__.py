"""Serving: watch a real vLLM server speculate. No Streamlit here; the Serving page (specviz/ui/serving/view.py)
draws what these modules return.

  metrics.py   vLLM's /metrics as speculative-decoding numbers: acceptance, per position, mean accepted length
  client.py    HTTP with short timeouts, address checks, who the load generator may reach
  load.py      the bounded load generator: the same prompts at 1..16 concurrent streams
  results.py   a sweep's JSON under assets/benchmarks/serving/
  server.py    the local server: .venv-vllm, start with a speculative config, wait for /health, stop the group
  export.py    the drafts trained here, in layouts vLLM loads
  compare.py   vLLM's acceptance next to specviz's, per prompt, greedy
  cli.py       `python -m specviz serve start | stop | status | install | sweep`
"""
