B
past_valueJ H ?Mƒ?ÊnØ¿Œî?®b¿˜Û¿Êw¿wí?