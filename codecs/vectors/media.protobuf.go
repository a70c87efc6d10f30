
õ
r
(http://videos.example.com/0/p6apygon.mpg€ ¸*
video/webm0á„øİ8ñ›š‚éJBjÃ¶rk GuÃ°mundsdÃ³ttirJAda LovelacePI
*http://images.example.com/0/p6apygon-0.jpgConfÃ©rence d'Ã©tÃ©À ğ(4
*http://images.example.com/0/p6apygon-1.jpg€ €(
ª
˜
(http://videos.example.com/1/wvpqq4wy.mpg€ à*
video/webm0Òíèæ8±ş»å@‰JĞŸÑ‘Ñ‚Ñ€ Ğ˜Ğ»ÑŒĞ¸Ñ‡JÎ‘Î»Î­Î¾Î·Ï‚ Î¤ÏƒÎ¯Ï€ÏÎ±Ï‚J
å®®å´ é§¿PZ	Â© OracleG
*http://images.example.com/1/wvpqq4wy-0.jpgĞœĞ¾ÑĞºĞ²Ğ° LiveÀ ğ(C
*http://images.example.com/1/wvpqq4wy-1.jpgSunset Î¡Î¯Î¿€ €(4
*http://images.example.com/1/wvpqq4wy-2.jpgÀ ğ(I
*http://images.example.com/1/wvpqq4wy-3.jpgConfÃ©rence d'Ã©tÃ©À ğ(
’
‰
(http://videos.example.com/2/8okvanwr.mpg€ à*video/quicktime0›ÄÈ»8‡‚½éC@Ê®JAda LovelaceJAda LovelacePZÂ© 2009 Sun MicrosystemsA
*http://images.example.com/2/8okvanwr-0.jpgHello World€ €(A
*http://images.example.com/2/8okvanwr-1.jpgæ±äº¬ Tour€ €(