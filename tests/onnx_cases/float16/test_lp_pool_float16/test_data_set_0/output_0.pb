
ByJ@±@$ApA6AoAÞAÿAAEA¶Aõ@³?l=¡?z@ÿ?œAç>¦@[A¨A_AAÂ?|ABï@Ò="BÝAD?Ç>