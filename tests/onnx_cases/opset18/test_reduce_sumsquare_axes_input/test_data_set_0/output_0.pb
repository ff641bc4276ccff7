ByJ"‡…A
#AõBO@