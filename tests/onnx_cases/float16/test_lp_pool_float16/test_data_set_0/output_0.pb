
ByJ@ÞAbA‹:­>YAƒAF>˜<ßA£BÍ@q<AÛBBg>ì@y=Ó>Â>`Bó?Y@sAC6BB°BJCUB"ABA