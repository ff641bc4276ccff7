B
past_valueJ Pz?ŞQŞ=ûÇÑ¿)ao?×«¾¿›Úã?•Q?=¹Ğ?