B
past_valueJ [w?ÇÓ½xJÌ?’*i¿6§?ÉGû?ø0ñ¿³Û?