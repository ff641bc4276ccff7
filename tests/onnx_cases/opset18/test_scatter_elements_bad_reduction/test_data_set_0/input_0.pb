BdataJú
l?ˆù—¿ÙÑÉ?