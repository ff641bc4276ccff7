B
past_valueJ W)?–aø¿§g >:=õ½)™b¿Èì>k™b?ÌN.?