ByJ@†ë¾Ág÷0@9gä>FA‰ô[Áp_8Á"ÂA§
âÁF¶•AÉv_ÁâzL@6MÎÁRIIRIÉRIERIÅ