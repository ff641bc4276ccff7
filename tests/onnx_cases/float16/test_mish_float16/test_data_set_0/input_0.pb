
BxJ¢1C=dæ1˝C?Õ>`A;"iDAf;—DCÁB