"""`measure.Timer`s that need no GPU: `replay.ReplayTimer` answers from recorded measurements,
`synthetic.SyntheticTimer` from a made-up landscape (the GPU's is `autotune.gpu.CudaEventTimer`)."""
