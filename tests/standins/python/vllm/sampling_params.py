class SamplingParams:
    def __init__(self, max_tokens=16, min_tokens=0, ignore_eos=False, temperature=1.0, **kwargs):
        self.max_tokens = max_tokens
        self.min_tokens = min_tokens
        self.ignore_eos = ignore_eos
        self.temperature = temperature
