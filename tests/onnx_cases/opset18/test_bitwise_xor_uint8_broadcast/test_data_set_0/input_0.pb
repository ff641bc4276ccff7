BaJúÀsvdÕ;•¾i¤¹MKY¤„Ôlâ
