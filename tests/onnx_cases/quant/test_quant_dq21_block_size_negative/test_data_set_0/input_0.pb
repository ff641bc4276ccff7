
BxJœ‡6™-uØÉlÎoÀìÜEûp©Rgo­yÔ¹D