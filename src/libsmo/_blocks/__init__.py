"""The kernel between rows and support vectors, block by block in bounded memory.

``support_rows``
    `SupportRows`: support vectors as the blocks read them (dense when small, bitmaps of
    0/1 rows, int16 rows of small integers, sparse columns).
``kernel_block``
    `for_each_kernel_block`: K(X, SV), or K(X, SV) @ coef, handed to a visitor one block
    at a time.

Prediction (`libsmo.model`), training's decision values and the cascade's scores
(`libsmo.training`, `libsmo.cascade`) all compute kernel sums through this package.
"""
