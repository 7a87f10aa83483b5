gpus --set sms=0
