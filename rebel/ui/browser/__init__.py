"""Paper-mode REBEL in the browser: the JavaScript engine (``rebel_engine.js``), what it is given
(``engine.problem_payload``) and how it runs under Node (``engine.run_node``). The numba engine is the reference;
``tests/test_browser_engine.py`` checks that both choose the same trees."""
