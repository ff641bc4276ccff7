ByJ®Ií!GU‰
Ùﬂ≈LÎGzhïµµÉk